// Types of one REST operation, read off the generated `paths` of /openapi.json: its query, path parameters, JSON
// body and success body. Nothing here is written by hand per route, so a route that changes on the server changes
// these types when src/generated/openapi.ts is regenerated.
import type { paths } from './generated/openapi.js';

export type { paths };
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The paths that have an operation for `M`. */
export type PathWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends Record<M, infer O> ? ([O] extends [never] ? never : P) : never;
}[keyof paths];

export type Operation<P extends keyof paths, M extends HttpMethod> =
  paths[P] extends Record<M, infer O> ? O : never;

type Params<O> = O extends { parameters: infer X } ? X : never;
/** The operation's query object (never when it takes none). */
export type QueryOf<O> = Params<O> extends { query?: infer Q } ? NonNullable<Q> : never;
/** The operation's path parameters (never when it takes none). */
export type PathParamsOf<O> = Params<O> extends { path?: infer Q } ? NonNullable<Q> : never;
/** The operation's JSON body (never when it takes none). */
export type BodyOf<O> = O extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : O extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : never;

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : undefined;
/** The success body (the union of every 2xx the operation documents; undefined for a 204). */
export type ResponseOf<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? JsonOf<R[S]> : never }[keyof R]
  : never;

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

type QueryPart<O> = [QueryOf<O>] extends [never]
  ? { query?: undefined }
  : [RequiredKeys<QueryOf<O>>] extends [never]
    ? { query?: QueryOf<O> }
    : { query: QueryOf<O> };
type PathPart<O> = [PathParamsOf<O>] extends [never] ? { path?: undefined } : { path: PathParamsOf<O> };
type BodyPart<O> = [BodyOf<O>] extends [never]
  ? { body?: undefined }
  : undefined extends BodyOf<O>
    ? { body?: BodyOf<O> }
    : { body: BodyOf<O> };

/** What a call of operation O needs: its query, path parameters and body, each typed from the document. */
export type RequestInput<O> = QueryPart<O> & PathPart<O> & BodyPart<O>;

/** Shorthands for the named methods. */
export type Query<P extends keyof paths, M extends HttpMethod = 'get'> = QueryOf<Operation<P, M>>;
export type Body<P extends keyof paths, M extends HttpMethod = 'post'> = NonNullable<BodyOf<Operation<P, M>>>;
export type Result<P extends keyof paths, M extends HttpMethod = 'get'> = ResponseOf<Operation<P, M>>;
