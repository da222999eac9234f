// Fastify builds a child logger for every request; with redaction configured, pino's child() is a measurable
// share of a cheap request's CPU. This defers the child until something is logged at an enabled level.
// Methods live on the prototype: per-request construction must cost one small object, nothing more.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Callable = Record<Method, (...args: unknown[]) => void> & { isLevelEnabled(level: string): boolean };

export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

class LazyChildLogger {
  private resolved: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): string {
    return this.resolved?.level ?? this.options.level ?? this.parent.level;
  }

  set level(value: string) {
    this.resolve().level = value;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.resolve().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    return ((this.resolved ?? this.parent) as unknown as Callable).isLevelEnabled(level);
  }

  private log(level: Method, args: unknown[]): void {
    // A per-route log level (options.level) can differ from the parent's: then always resolve and let pino decide.
    if (this.resolved === null && this.options.level === undefined && !this.isLevelEnabled(level)) return;
    (this.resolve() as unknown as Callable)[level](...args);
  }

  private resolve(): FastifyBaseLogger {
    this.resolved ??= this.parent.child(this.bindings, this.options);
    return this.resolved;
  }
}
