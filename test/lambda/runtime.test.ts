import { loadConfig } from '@memgate/adapters';
import { describe, expect, it } from 'vitest';
import { createAwsRuntime, verifierOptionsFor } from '../../functions/runtime/aws.ts';
import { LAMBDA_RUNTIME } from '../../infra/runtime.ts';

const AWS_ENV = {
  TABLE_NAME: 'memgate-prod-Table',
  VECTOR_STORE: 'pinecone',
  PINECONE_API_KEY: 'pcsk_test_key_123',
  PINECONE_INDEX: 'memgate',
  PINECONE_HOST: 'https://memgate-abc123.svc.aped-4627-b74a.pinecone.io',
  AUTH_JWT_SECRET: 'x'.repeat(32),
};

describe('Lambda runtime', () => {
  // `npm test` runs this project on the Node major of LAMBDA_RUNTIME (scripts/lambda-node.mjs sets the variable).
  it.runIf(process.env.MEMGATE_LAMBDA_NODE_MAJOR)(
    'runs the bundles on the Node major the functions deploy with',
    () => {
      expect(LAMBDA_RUNTIME).toBe(`nodejs${process.env.MEMGATE_LAMBDA_NODE_MAJOR}.x`);
      expect(process.versions.node.split('.')[0]).toBe(process.env.MEMGATE_LAMBDA_NODE_MAJOR);
    },
  );
});

describe('AWS composition root', () => {
  it('builds from the environment infra sets, with the table name it links', () => {
    const runtime = createAwsRuntime(AWS_ENV);
    expect(runtime.inputs.tableName).toBe('memgate-prod-Table');
    expect(runtime.config.VECTOR_STORE).toBe('pinecone');
    runtime.inputs.documentClient.destroy();
  });

  it('refuses the embedded vector store, which does not exist in a Lambda', () => {
    expect(() => createAwsRuntime({ ...AWS_ENV, VECTOR_STORE: 'local' })).toThrow(/VECTOR_STORE=pinecone/);
  });

  it('refuses to start without Pinecone settings, naming them but not their values', () => {
    expect(() => createAwsRuntime({ ...AWS_ENV, PINECONE_API_KEY: '' })).toThrow(/PINECONE_API_KEY/);
  });

  it("refuses to start without the index's host: the bundles carry no control plane to look it up", () => {
    expect(() => createAwsRuntime({ ...AWS_ENV, PINECONE_HOST: '' })).toThrow(/set PINECONE_HOST/);
  });

  it('verifies tokens with the OIDC provider when AUTH_JWKS_URL is set, else with the shared secret', () => {
    const jwks = loadConfig({
      ...AWS_ENV,
      AUTH_JWKS_URL: 'https://issuer.example/.well-known/jwks.json',
      AUTH_ISSUER: 'https://issuer.example/',
      AUTH_AUDIENCE: 'memgate',
    });
    expect(verifierOptionsFor(jwks)).toEqual({
      kind: 'jwks',
      jwksUrl: 'https://issuer.example/.well-known/jwks.json',
      issuer: 'https://issuer.example/',
      audience: 'memgate',
    });
    expect(verifierOptionsFor(loadConfig(AWS_ENV))).toMatchObject({ kind: 'hs256' });
    expect(() => verifierOptionsFor(loadConfig({ ...AWS_ENV, AUTH_JWT_SECRET: '' }))).toThrow(/AUTH_JWKS_URL/);
  });
});
