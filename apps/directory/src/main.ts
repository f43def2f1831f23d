import 'reflect-metadata';
import { directoryEngine } from '@coffer/directory';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** directory (LDAP / Active Directory passwords and libraries) in cluster mode: one replica of the "directory" queue group. */
runMain(() => runEngine(directoryEngine));
