import { CLOUD_A_ENVIRONMENTS } from '@coffer/contracts/cloud-a';

/** Where an Azure cloud's authority, Microsoft Graph and Resource Manager live. */
export interface CloudAEndpoints {
  authorityHost: string;
  graph: string;
  resourceManager: string;
  /** a custom authority (Azure Stack, private clouds) is not known to MSAL's instance discovery */
  customAuthority: boolean;
}

type EnvironmentName = (typeof CLOUD_A_ENVIRONMENTS)[number];

const KNOWN: Record<EnvironmentName, Omit<CloudAEndpoints, 'customAuthority'>> = {
  AzurePublicCloud: {
    authorityHost: 'https://login.microsoftonline.com',
    graph: 'https://graph.microsoft.com',
    resourceManager: 'https://management.azure.com',
  },
  AzureUSGovernmentCloud: {
    authorityHost: 'https://login.microsoftonline.us',
    graph: 'https://graph.microsoft.us',
    resourceManager: 'https://management.usgovcloudapi.net',
  },
  AzureChinaCloud: {
    authorityHost: 'https://login.chinacloudapi.cn',
    graph: 'https://microsoftgraph.chinacloudapi.cn',
    resourceManager: 'https://management.chinacloudapi.cn',
  },
};

/** Vault's environment name (case-insensitive, as go-autorest's EnvironmentFromName); "" is the public cloud. */
export function environmentNamed(name: string): EnvironmentName | undefined {
  if (name === '') return 'AzurePublicCloud';
  return CLOUD_A_ENVIRONMENTS.find((known) => known.toUpperCase() === name.toUpperCase());
}

export const unknownEnvironment = (name: string): string =>
  `autorest/azure: There is no cloud environment matching the name "${name.toUpperCase()}"`;

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/** The environment's endpoints, each overridden by its explicit setting when one is given. */
export function endpointsOf(settings: {
  environment: string;
  authority_host: string;
  graph_endpoint: string;
  resource_manager_endpoint: string;
}): CloudAEndpoints {
  const known = KNOWN[environmentNamed(settings.environment) ?? 'AzurePublicCloud'];
  return {
    authorityHost: trimSlash(settings.authority_host || known.authorityHost),
    graph: trimSlash(settings.graph_endpoint || known.graph),
    resourceManager: trimSlash(settings.resource_manager_endpoint || known.resourceManager),
    customAuthority: settings.authority_host !== '',
  };
}
