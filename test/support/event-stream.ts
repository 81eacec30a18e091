export interface StreamMessage {
  event: string;
  id: string | null;
  data: string;
}

/**
 * A live console stream read as the browser's EventSource would: the session cookie goes
 * along, messages are collected as they come, and `ended` says when the server closed it.
 */
export class EventStreamReader {
  readonly messages: StreamMessage[] = [];
  status = 0;
  ended = false;
  private readonly controller = new AbortController();
  private done: Promise<void> = Promise.resolve();
  private markReady: () => void = () => undefined;
  private readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  static async open(url: string, headers: Record<string, string>): Promise<EventStreamReader> {
    const reader = new EventStreamReader();
    const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: reader.controller.signal });
    reader.status = response.status;
    if (!response.ok || !response.body) {
      reader.ended = true;
      return reader;
    }
    reader.done = reader.read(response.body);
    // The first message (`ready`) says the server has subscribed the stream.
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no ready message on ${url} within 10 s`)), 10_000);
    });
    try {
      await Promise.race([reader.ready, timedOut]);
    } finally {
      clearTimeout(timer);
    }
    return reader;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      const stream = body.getReader();
      for (;;) {
        const { done, value } = await stream.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const message: StreamMessage = { event: 'message', id: null, data: '' };
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) message.id = line.slice(4);
            else if (line.startsWith('event: ')) message.event = line.slice(7);
            else if (line.startsWith('data: ')) message.data += line.slice(6);
          }
          if (block.split('\n').some((line) => !line.startsWith(':'))) this.messages.push(message);
          if (message.event === 'ready') this.markReady();
        }
      }
    } catch (error) {
      if (!this.controller.signal.aborted) throw error;
    } finally {
      this.ended = true;
    }
  }

  /** The `change` messages whose data mentions `text`. */
  changesMentioning(text: string): StreamMessage[] {
    return this.messages.filter((message) => message.event === 'change' && message.data.includes(text));
  }

  /** Resolves when the server ends the stream (or it is closed here). */
  finished(): Promise<void> {
    return this.done;
  }

  async close(): Promise<void> {
    this.controller.abort();
    await this.done;
  }
}
