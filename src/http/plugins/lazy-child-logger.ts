// Fastify builds a child logger for every request; with redaction configured, pino's child() is a measurable
// share of a cheap request's CPU. This defers the child until something is actually logged at an enabled level.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, LogFn } from 'pino';

type LevelMethod = Exclude<Level, never> | 'silent';

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

  readonly fatal: LogFn = (...args: Parameters<LogFn>) => this.log('fatal', args);
  readonly error: LogFn = (...args: Parameters<LogFn>) => this.log('error', args);
  readonly warn: LogFn = (...args: Parameters<LogFn>) => this.log('warn', args);
  readonly info: LogFn = (...args: Parameters<LogFn>) => this.log('info', args);
  readonly debug: LogFn = (...args: Parameters<LogFn>) => this.log('debug', args);
  readonly trace: LogFn = (...args: Parameters<LogFn>) => this.log('trace', args);
  readonly silent: LogFn = () => undefined;

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.resolve().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    const resolved = this.resolved ?? this.parent;
    return (resolved as unknown as { isLevelEnabled(l: string): boolean }).isLevelEnabled(level);
  }

  private log(level: LevelMethod, args: Parameters<LogFn>): void {
    if (this.resolved === null && this.options.level === undefined && !this.isLevelEnabled(level)) return;
    const target = this.resolve() as unknown as Record<LevelMethod, (...a: unknown[]) => void>;
    target[level](...(args as unknown[]));
  }

  private resolve(): FastifyBaseLogger {
    this.resolved ??= this.parent.child(this.bindings, this.options);
    return this.resolved;
  }
}
