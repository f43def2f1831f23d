import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
export const policiesProviders: Provider[] = [];
export const policiesControllers: Type[] = [];
export const policiesMigrations: Record<string, Migration> = {};
