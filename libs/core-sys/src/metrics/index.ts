import type { Provider, Type } from '@nestjs/common';
import { MetricsHandlers } from './metrics.handlers';
import { MetricsService } from './metrics.service';

export const metricsProviders: Provider[] = [MetricsService];
export const metricsControllers: Type[] = [MetricsHandlers];
