import 'reflect-metadata';
import { replicationEngine } from '@coffer/replication';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** Replication in cluster mode: the one replica of the "replication" queue group. */
runMain(() => runEngine(replicationEngine));
