import 'reflect-metadata';
import { sshEngine } from '@coffer/ssh';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** ssh (certificates, one-time passwords, dynamic keys) in cluster mode: one replica of the "ssh" queue group. */
runMain(() => runEngine(sshEngine));
