import 'reflect-metadata';
import { cloudCredsEngine } from '@coffer/cloud-creds';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** cloud-creds (cloud-a: Azure service principals, cloud-b: AWS IAM/STS) in cluster mode: one replica of the "cloud-creds" queue group. */
runMain(() => runEngine(cloudCredsEngine));
