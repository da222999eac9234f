// Once shutdown begins, new requests get 503 service_unavailable (retryable, Connection: close) in the
// contract's error shape, so a load balancer or client moves on while in-flight requests finish.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/app-error.js';

export interface ShutdownGate {
  begin(): void;
  readonly closing: boolean;
}

export function installShutdownGate(app: FastifyInstance): ShutdownGate {
  let closing = false;
  // Callback style: this hook runs on every request and must cost no promise.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(new AppError('service_unavailable', 'server is shutting down; retry on another node or shortly'));
  });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return {
    begin() {
      closing = true;
    },
    get closing() {
      return closing;
    },
  };
}
