import 'reflect-metadata';
import { coreSysEngine } from '@coffer/core-sys';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** core-sys in cluster mode: the platform (seal, tokens, policies, mounts, auth, identity). */
runMain(() => runEngine(coreSysEngine));
