/**
 * `undici` as the Lambda bundles see it (scripts/build.ts puts this module in its place): undici's own fetch, Agent
 * and connector, loaded on the first upstream request instead of at import. The proxy builds its SSRF-checking
 * dispatchers at start-up, but a function serving the default model, a replay or a refused request never opens an
 * upstream connection, so it need not evaluate ~250 KB of HTTP client. Only the three names memgate imports exist;
 * importing anything else from 'undici' fails the build. This file only works bundled: `require` here is esbuild's
 * (a bundled module evaluated on first call), not Node's.
 */
import type * as Undici from 'undici';

let undici: { fetch: typeof Undici.fetch; Agent: typeof Undici.Agent; buildConnector: typeof Undici.buildConnector };

function load(): typeof undici {
  undici ??= {
    fetch: require('undici/lib/web/fetch/index.js').fetch,
    Agent: require('undici/lib/dispatcher/agent.js'),
    buildConnector: require('undici/lib/core/connect.js'),
  };
  return undici;
}

export const fetch: typeof Undici.fetch = (input, init) => load().fetch(input, init);

export const buildConnector = ((options: Undici.buildConnector.BuildOptions) => {
  let connect: Undici.buildConnector.connector | undefined;
  return (connectOptions: Undici.buildConnector.Options, callback: Undici.buildConnector.Callback) => {
    connect ??= load().buildConnector(options);
    return connect(connectOptions, callback);
  };
}) as typeof Undici.buildConnector;

/** Builds the real Agent on its first dispatch; undici's fetch only calls `dispatch` (and reads `isMockActive`). */
export class Agent {
  readonly #options: Undici.Agent.Options | undefined;
  #agent: Undici.Agent | undefined;

  constructor(options?: Undici.Agent.Options) {
    this.#options = options;
  }

  get isMockActive(): boolean {
    return false;
  }

  dispatch(options: Undici.Dispatcher.DispatchOptions, handler: Undici.Dispatcher.DispatchHandler): boolean {
    this.#agent ??= new (load().Agent)(this.#options);
    return this.#agent.dispatch(options, handler);
  }

  close(): Promise<void> {
    return this.#agent ? this.#agent.close() : Promise.resolve();
  }

  destroy(error?: Error): Promise<void> {
    return this.#agent ? this.#agent.destroy(error ?? null) : Promise.resolve();
  }
}
