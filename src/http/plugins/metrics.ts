// Prometheus metrics: the process and background jobs on a prom-client registry of our own (no global default
// registry), and requests by route and status with their latency in RouteMetrics, whose per-request cost is a few
// increments.
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { BackgroundJob } from '../../domain/background-job.js';
import { CircuitState, type VenueCircuit } from '../../domain/circuit-breaker.js';
import type { PayloadDrift } from '../../domain/payload-drift.js';
import { RouteMetrics } from './route-metrics.js';

export class HttpMetrics {
  private readonly registry = new Registry();
  private readonly routes = new RouteMetrics(
    'omnibook_http_requests_total',
    'omnibook_http_request_duration_seconds',
  );
  readonly contentType = this.registry.contentType;

  constructor(
    jobs: () => readonly BackgroundJob[],
    circuits: () => readonly VenueCircuit[] = () => [],
    drift?: PayloadDrift,
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: 'omnibook_' });
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
    const states = CircuitState.enum as readonly CircuitState[];
    // Read from the breakers when scraped, so the request path pays nothing for them.
    new Gauge({
      name: 'omnibook_venue_circuit_state',
      help: 'Venue circuit breaker: 1 for the state it is in (closed, open, half_open), 0 for the others',
      labelNames: ['exchange', 'state'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { exchange, breaker } of circuits()) {
          const now = breaker.state;
          for (const state of states) this.set({ exchange, state }, state === now ? 1 : 0);
        }
      },
    });
    new Counter({
      name: 'omnibook_venue_circuit_transitions_total',
      help: 'Venue circuit breaker transitions since start, by the state entered',
      labelNames: ['exchange', 'to'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { exchange, breaker } of circuits()) {
          for (const to of states) this.inc({ exchange, to }, breaker.transitions(to));
        }
      },
    });
    // The drift alarm: an exchange that changed its format shows here by the field that stopped decoding.
    new Counter({
      name: 'omnibook_venue_payload_drift_total',
      help: 'Exchange answers and stream frames that failed their decoder since start, by exchange, operation and JSON path',
      labelNames: ['exchange', 'operation', 'path'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const e of drift?.counts() ?? []) {
          this.inc({ exchange: e.exchange, operation: e.operation, path: e.path }, e.count);
        }
      },
    });
  }

  install(app: FastifyInstance): void {
    // Route templates, not raw URLs, so cardinality stays bounded. Each route's template is captured once, in a hook
    // of its own: reading `request.routeOptions` instead builds a dozen-field object on every request.
    app.addHook('onRoute', (route) => {
      const template = route.url;
      const record: onResponseHookHandler = (request, reply, done) => {
        this.routes.record(request.method, template, reply.statusCode, reply.elapsedTime / 1000);
        done();
      };
      const own = route.onResponse;
      route.onResponse = own === undefined ? [record] : [...(Array.isArray(own) ? own : [own]), record];
    });
    // A request no route matched is answered by the not-found handler, which has no route hooks: one label for all.
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404)
        this.routes.record(request.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  /** The exposition text of every metric. */
  async render(): Promise<string> {
    return `${this.routes.render()}\n${await this.registry.metrics()}`;
  }
}
