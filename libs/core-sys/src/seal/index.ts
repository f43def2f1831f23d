import type { Provider, Type } from '@nestjs/common';
import type { Migration } from 'kysely';
export const sealProviders: Provider[] = [];
export const sealControllers: Type[] = [];
export const sealMigrations: Record<string, Migration> = {};
