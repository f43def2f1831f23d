import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface TelemetryLogger {
  warn(message: string): void;
}

/** At most one warning per this many ms; the spans lost in between are counted in the next one. */
export const EXPORT_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * Wraps an exporter so that failed exports are logged, at most once a minute: a wrong collector
 * endpoint otherwise fails silently (the SDK only reports to its diag logger, off by default).
 * The message names the destination and the error, never span content.
 */
export class ReportingExporter implements SpanExporter {
  #lastLog = -Infinity;
  #lostSinceLog = 0;
  #failuresSinceLog = 0;

  constructor(
    private readonly inner: SpanExporter,
    private readonly destination: string,
    private readonly logger: TelemetryLogger,
    private readonly now: () => number = Date.now,
  ) {}

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.#report(result.error, spans.length);
      resultCallback(result);
    });
  }

  #report(error: Error | undefined, lost: number): void {
    this.#lostSinceLog += lost;
    this.#failuresSinceLog += 1;
    const now = this.now();
    if (now - this.#lastLog < EXPORT_FAILURE_LOG_INTERVAL_MS) return;
    const what = error?.message ?? 'unknown error';
    const more =
      this.#failuresSinceLog > 1 ? ` (${this.#failuresSinceLog} failed exports since the last report)` : '';
    this.logger.warn(
      `trace export to ${this.destination} failed: ${what}; ${this.#lostSinceLog} spans dropped${more}`,
    );
    this.#lastLog = now;
    this.#lostSinceLog = 0;
    this.#failuresSinceLog = 0;
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
