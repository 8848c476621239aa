import type { DrillClassView } from '@seam/shared/teaching';

/** For tests: the `answers` events of a drill's event stream (an SSE response), read as they come. */
export function answerEvents(res: Response): { next(): Promise<DrillClassView>; close(): Promise<void> } {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    next: async () => {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!block.includes('event: answers')) continue;
          return JSON.parse(block.split('\n').find((l) => l.startsWith('data: '))!.slice(6)) as DrillClassView;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
    },
    close: () => reader.cancel(),
  };
}
