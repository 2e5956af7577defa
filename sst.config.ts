/// <reference path="./infra/sst-env.d.ts" />

// `npx sst deploy --stage prod` (docs/DEPLOY.md). Run `npm run build` first: functions deploy from dist/functions.
export default $config({
  app(input) {
    return {
      name: 'memgate',
      home: 'aws',
      removal: input?.stage === 'prod' ? 'retain' : 'remove',
      protect: input?.stage === 'prod',
    };
  },
  async run() {
    await import('./infra/table.ts');
    await import('./infra/secrets.ts');
    const { api } = await import('./infra/api.ts');
    const { proxy, chat } = await import('./infra/streaming.ts');
    await import('./infra/cleanup.ts');
    const { mcp } = await import('./infra/mcp.ts');
    // After the streaming functions: the API reference names their URLs as the proxy's and the chat's servers.
    await import('./infra/docs.ts');
    return {
      api: api.url,
      docs: $interpolate`${api.url}/docs`,
      proxy: proxy.url,
      chat: chat.url,
      openaiBaseUrl: $interpolate`${proxy.url}api/v1/proxy/default`,
      mcp: $interpolate`${mcp.url}mcp`,
    };
  },
});
