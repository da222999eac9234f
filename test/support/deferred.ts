// A promise with its resolve and reject handed out, for tests that decide when an operation ends (Node 20 has no
// Promise.withResolvers).
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
