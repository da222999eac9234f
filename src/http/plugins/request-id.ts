// Every request's id, as logged (request_id), written in audit lines and returned with a 500. A client's
// X-Request-Id is honoured only behind a trusted proxy (http.trustProxy), which is where such an id is set (the
// load balancer's, so the proxy's and our log lines join), and then only as a plain token: a client talking to us
// directly could otherwise repeat the ids of other requests, or put anything it likes into our log lines. Our own
// ids are random, so they say nothing about traffic and do not repeat across nodes or restarts.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a proxy's id may be: letters, digits and . _ : -, up to 128 characters. */
const TRUSTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdGenerator(trustProxy: boolean): (request: IncomingMessage) => string {
  if (!trustProxy) return () => randomUUID();
  return (request) => {
    const sent = request.headers['x-request-id'];
    return typeof sent === 'string' && TRUSTED_ID.test(sent) ? sent : randomUUID();
  };
}
