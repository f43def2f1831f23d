import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
export const mountsProviders: Provider[] = [];
export const mountsControllers: Type[] = [];
export const mountsMigrations: Record<string, Migration> = {};
