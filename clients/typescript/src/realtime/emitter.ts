// A small typed event emitter (Node's EventEmitter is not in browsers). A listener that throws does not stop the
// others, and its error is re-thrown asynchronously so it is not swallowed.

export type Listener<A extends unknown[]> = (...args: A) => void;

export class Emitter<E extends { [K in keyof E]: unknown[] }> {
  private readonly listeners = new Map<keyof E, Set<(...args: never[]) => void>>();

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as unknown as (...args: never[]) => void);
    return () => this.off(event, listener);
  }

  once<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    const off = this.on(event, ((...args: E[K]) => {
      off();
      listener(...args);
    }) as Listener<E[K]>);
    return off;
  }

  off<K extends keyof E>(event: K, listener: Listener<E[K]>): void {
    this.listeners.get(event)?.delete(listener as unknown as (...args: never[]) => void);
  }

  listenerCount<K extends keyof E>(event: K): number {
    return this.listeners.get(event)?.size ?? 0;
  }

  protected emit<K extends keyof E>(event: K, ...args: E[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as unknown as Listener<E[K]>)(...args);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  protected removeAllListeners(): void {
    this.listeners.clear();
  }
}
