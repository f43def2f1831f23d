import 'reflect-metadata';
import { runEngine } from '@coffer/engines';
import { pkiEngine } from '@coffer/pki';
import { runMain } from '@coffer/service-host';

/** pki (X.509 certificate authority) in cluster mode: one replica of the "pki" queue group. */
runMain(() => runEngine(pkiEngine));
