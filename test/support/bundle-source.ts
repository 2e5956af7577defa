import { build, type Plugin } from 'esbuild';

/**
 * A module's source bundled as a Lambda build bundles it (ESM for Node, packages' `module` entry first), with the
 * given plugins, returned as text: for tests of what a build plugin keeps or leaves out.
 */
export async function bundleSource(contents: string, resolveDir: string, plugins: Plugin[]): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
    plugins,
  });
  return result.outputFiles[0]?.text ?? '';
}
