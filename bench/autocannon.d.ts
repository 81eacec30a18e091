// The parts of autocannon (which ships no types) that the benchmarks use.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      body?: string;
      headers?: Record<string, string>;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      requests?: Request[];
    }
    interface Histogram {
      average: number;
      mean: number;
      p50: number;
      p90: number;
      p99: number;
      max: number;
    }
    interface Result {
      duration: number;
      latency: Histogram;
      requests: Histogram & { total: number };
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
