import 'reflect-metadata';
import { oidcEngine } from '@coffer/oidc';
import { runEngine } from '@coffer/engines';
import { runMain } from '@coffer/service-host';

/** The OIDC provider in cluster mode: one replica of the "oidc" queue group. */
runMain(() => runEngine(oidcEngine));
