import 'reflect-metadata';
import { kvEngine } from '@coffer/kv';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** kv (kv v1, kv v2, cubbyhole) in cluster mode: one replica of the "kv" queue group. */
runMain(() => runEngine(kvEngine));
