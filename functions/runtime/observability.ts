import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { type Logger, type LogLevel, type RequestIdOf, redactSecrets, redactValue } from '@memgate/http';
import type { Context as LambdaContext } from 'aws-lambda';
import type { Context, MiddlewareHandler } from 'hono';

/** The CloudWatch namespace of memgate's metrics. */
export const METRICS_NAMESPACE = 'memgate';

const POWERTOOLS_LEVEL = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  silent: 'SILENT',
} as const satisfies Record<LogLevel, string>;

/** The invocation's Lambda context: `handle` passes it as `lambdaContext`, `streamHandle` as `context`. */
function lambdaContextOf(c: Context): LambdaContext | undefined {
  const env = c.env as { lambdaContext?: LambdaContext; context?: LambdaContext } | undefined;
  return env?.lambdaContext ?? env?.context;
}

/** In Lambda a request's id is its invocation's `awsRequestId` (the id in Lambda's own logs and X-Ray). */
export const awsRequestIdOf: RequestIdOf = (c) => lambdaContextOf(c)?.awsRequestId;

export interface LambdaObservability {
  /** memgate's Logger on Powertools: JSON lines with the Lambda context and cold-start flag, secrets redacted. */
  logger: Logger;
  powertools: PowertoolsLogger;
  metrics: Metrics;
  /** Adds the invocation's context to the logs, and after the response records and flushes its metrics (EMF). */
  middleware: MiddlewareHandler;
}

/** Reads `upstream;dur=12.5` from a Server-Timing header (the proxy's upstream latency). */
function upstreamMs(serverTiming: string | null): number | undefined {
  const match = serverTiming ? /(?:^|,)\s*upstream;dur=([\d.]+)/.exec(serverTiming) : null;
  return match ? Number(match[1]) : undefined;
}

function countHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null) return undefined;
  const count = Number(value);
  return Number.isFinite(count) ? count : undefined;
}

/**
 * Lambda logs and metrics with AWS Lambda Powertools (the local server keeps its JSON logger). Every log line
 * passes through the same redaction as the local logger: a token or key never reaches CloudWatch.
 */
export function createLambdaObservability({
  level = 'info',
  serviceName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'memgate',
}: {
  level?: LogLevel;
  serviceName?: string;
} = {}): LambdaObservability {
  const powertools = new PowertoolsLogger({ serviceName, logLevel: POWERTOOLS_LEVEL[level] });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName });
  const write =
    (at: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, fields: Record<string, unknown> = {}) =>
      powertools[at](redactSecrets(message), redactValue(fields) as Record<string, unknown>);
  const logger: Logger = { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };

  const middleware: MiddlewareHandler = async function observeInvocation(c, next) {
    const context = lambdaContextOf(c);
    if (context) {
      powertools.addContext(context);
      metrics.captureColdStartMetric(context.functionName);
    }
    try {
      await next();
    } finally {
      recordMetrics(metrics, c.res);
    }
  };
  return { logger, powertools, metrics, middleware };
}

/** One request's metrics: the request itself by status class, and what the proxy reports in its headers. */
function recordMetrics(metrics: Metrics, response: Response | undefined): void {
  const status = response?.status ?? 500;
  metrics.addDimension('statusClass', `${Math.floor(status / 100)}xx`);
  metrics.addMetric('requests', MetricUnit.Count, 1);
  if (response) {
    const upstream = upstreamMs(response.headers.get('server-timing'));
    if (upstream !== undefined) metrics.addMetric('upstreamLatency', MetricUnit.Milliseconds, upstream);
    const reported = [
      ['tokensSaved', 'x-memgate-tokens-saved'],
      ['messagesDropped', 'x-memgate-history-dropped'],
      ['contextInjected', 'x-memgate-context-injected'],
    ] as const;
    for (const [metric, header] of reported) {
      const value = countHeader(response.headers, header);
      if (value !== undefined) metrics.addMetric(metric, MetricUnit.Count, value);
    }
  }
  metrics.publishStoredMetrics();
}
