/**
 * Who is watching which drill's answers live (the owner's event streams), in this process. A
 * listener is called after each stored answer; it reads the view itself, so a burst of answers
 * costs one read per answer and listener. Embedded mode's `DrillSignal`.
 */
export class DrillHub {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Calls `fn` after each answer to `drillId` until the returned function is called. */
  watch(drillId: string, fn: () => void): () => void {
    let set = this.listeners.get(drillId);
    if (!set) this.listeners.set(drillId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(drillId);
    };
  }

  changed(drillId: string): void {
    for (const fn of this.listeners.get(drillId) ?? []) fn();
  }

  /** The drills watched now. */
  watched(): string[] {
    return [...this.listeners.keys()];
  }

  close(): Promise<void> {
    this.listeners.clear();
    return Promise.resolve();
  }
}
