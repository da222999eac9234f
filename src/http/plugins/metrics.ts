// Prometheus metrics on a registry of our own (no global default registry): requests by route and status,
// latency histograms, and the state of background jobs. Label children are cached per route and status so the
// per-request cost is a map lookup and two increments.
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { BackgroundJob } from '../../domain/background-job.js';

type CounterChild = ReturnType<Counter<'method' | 'route' | 'status'>['labels']>;
type HistogramChild = ReturnType<Histogram<'method' | 'route'>['labels']>;

export class HttpMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly latency: Histogram<'method' | 'route'>;
  private readonly children = new Map<string, { count: CounterChild; latency: HistogramChild }>();

  constructor(jobs: () => readonly BackgroundJob[]) {
    collectDefaultMetrics({ register: this.registry, prefix: 'omnibook_' });
    this.requests = new Counter({
      name: 'omnibook_http_requests_total',
      help: 'HTTP requests by route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'omnibook_http_request_duration_seconds',
      help: 'HTTP request latency by route template',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    new Gauge({
      name: 'omnibook_job_healthy',
      help: 'Background job health: 1 running, 0.5 degraded or starting, 0 stopped',
      labelNames: ['job'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const job of jobs()) {
          const health = job.state().health;
          this.set({ job: job.name }, health === 'running' ? 1 : health === 'stopped' ? 0 : 0.5);
        }
      },
    });
  }

  install(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      // Route templates, not raw URLs, so cardinality stays bounded; unmatched paths share one label.
      const route = request.routeOptions.url ?? 'unmatched';
      const status = reply.statusCode;
      const id = `${request.method} ${status} ${route}`;
      let child = this.children.get(id);
      if (!child) {
        child = {
          count: this.requests.labels(request.method, route, String(status)),
          latency: this.latency.labels(request.method, route),
        };
        this.children.set(id, child);
      }
      child.count.inc();
      child.latency.observe(reply.elapsedTime / 1000);
      done();
    });
  }
}
