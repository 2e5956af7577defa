import { ensureTable } from '@memgate/adapters';
import { startPineconeEmulator } from '@memgate/adapters/pinecone/emulator/index';
import { signLocalToken } from '@memgate/local/token';
import { MAX_BUNDLE_BYTES } from '../../scripts/build.ts';
import {
  buildBenchBundles,
  type ColdStart,
  lambdaFunctionEnv,
  lambdaScenarios,
  measureColdStart,
} from '../cold-start.ts';
import type { BenchEnv } from '../lib/env.ts';
import { type AreaResult, atMost, type Figure, figure } from '../lib/results.ts';
import { round, summarize } from '../lib/stats.ts';

const SECRET = 'memgate-bench-lambda-secret-0123456789';
const KIB = 1024;

/**
 * Lambda bundles and cold starts (issue 6): builds every function's bundle (scripts/build.ts), then for each one
 * starts fresh Node processes that import the bundle and serve one real first request (bench/cold-start.ts), with
 * the environment a deployed function gets: DynamoDB (here the run's DynamoDB Local, its own table) and Pinecone
 * (the repository's Pinecone emulator).
 */
export async function lambdaArea(env: BenchEnv): Promise<AreaResult> {
  const runs = env.quick ? 3 : 7;
  const buildStarted = performance.now();
  const built = await buildBenchBundles();
  const buildSeconds = (performance.now() - buildStarted) / 1000;
  const pinecone = await startPineconeEmulator({ apiKey: 'pcsk_bench' });
  const tableName = 'memgate-lambda-bench';
  try {
    await ensureTable(env.documentClient, tableName);
    const functionEnv = lambdaFunctionEnv({
      dynamoEndpoint: env.dynamo.endpoint,
      tableName,
      pineconeUrl: pinecone.url,
      secret: SECRET,
    });
    const scenarios = lambdaScenarios(await signLocalToken(SECRET, { user: 'bench-lambda' }));
    const figures: Figure[] = [];
    const series: Record<string, number[]> = {};
    for (const [name, scenario] of Object.entries(scenarios)) {
      const bundle = built.bundles.get(name);
      if (!bundle) throw new Error(`no bundle was built for ${name}`);
      const samples: ColdStart[] = [];
      for (let i = 0; i < runs; i++) {
        const sample = await measureColdStart(bundle.file, scenario.event, {
          env: { ...functionEnv, AWS_LAMBDA_FUNCTION_NAME: name },
        });
        if (sample.statusCode !== scenario.status) {
          throw new Error(`${name}: first event answered ${sample.statusCode}, expected ${scenario.status}`);
        }
        samples.push(sample);
      }
      const response = summarize(samples.map((sample) => sample.responseMs));
      const invocation = summarize(samples.map((sample) => sample.coldStartMs));
      const imports = summarize(samples.map((sample) => sample.importMs));
      const firstEvent = summarize(samples.map((sample) => sample.firstEventMs));
      const sinceBoot = summarize(samples.map((sample) => sample.sinceProcessStartMs));
      figures.push(
        figure(`${name}: bundle (what a cold start loads)`, round(bundle.loadedBytes / KIB), 'KiB', {
          budget: atMost(MAX_BUNDLE_BYTES / KIB, '#6'),
          note:
            bundle.onDemandBytes > 0
              ? `index.mjs and its static chunks; ${round(bundle.onDemandBytes / KIB)} KiB more beside it, read on first use`
              : 'index.mjs and its static chunks',
        }),
        figure(`${name}: cold start median`, round(response.p50), 'ms', {
          budget: atMost(150, '#6'),
          note: `until the whole response; the invocation ends at ${round(invocation.p50)} ms (import ${round(imports.p50)} + first event ${round(firstEvent.p50)} ms); ${round(sinceBoot.p50)} ms counting Node's boot`,
        }),
      );
      series[name] = samples.map((sample) => sample.responseMs);
    }
    return {
      id: 'lambda',
      title: 'Lambda bundles and cold starts',
      figures,
      notes: [
        `Bundles built by scripts/build.ts in ${round(buildSeconds)} s (minified ESM, the AWS SDK bundled); size = what a cold start reads (index.mjs and the chunks it imports statically), the figure the build's 1 MB budget checks; files beside it read on first use (lazy chunks: undici on the first upstream request, Pinecone's data plane on the first vector call; the tokenizer table on the first exact token count, undici's parser on the first upstream response, Scalar's script on its first request: scripts/build-sidecars.ts SIDECARS) are in the notes.`,
        `Cold start = importing the bundle (module loading and the composition root) + serving one real first event (authenticated, touching DynamoDB Local and the Pinecone emulator) until the client has the whole response, in a fresh \`node\` process; median of ${runs} processes per function. A streaming function's response is over when its response stream ends; the proxy then stores the captured exchange before its handler settles, and that invocation's end (what Lambda bills) is in each row's note, equal to the response for the other functions. Node's own boot is not part of the figure (the note gives it with the boot counted, to the invocation's end).`,
      ],
      series,
    };
  } finally {
    await pinecone.close();
    built.remove();
  }
}
