import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
export const userpassProviders: Provider[] = [];
export const userpassControllers: Type[] = [];
export const userpassMigrations: Record<string, Migration> = {};
