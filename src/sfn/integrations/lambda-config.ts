/**
 * Where `arn:aws:states:::lambda:invoke` sends its calls: a Lambda Invoke API endpoint the operator
 * names (the SAM CLI's `start-lambda`, a LocalStack, or AWS's regional endpoint), with the region
 * and the credentials its requests are signed with.
 */
export interface LambdaTarget {
  readonly endpoint: URL;
  readonly region: string;
  readonly credentials: Readonly<{ accessKeyId: string; secretAccessKey: string; sessionToken?: string }>;
}

/** All optional: given values win over the environment. */
export interface LambdaTargetOptions {
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
}

const set = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/**
 * AF_SFN_LAMBDA_ENDPOINT, AF_SFN_LAMBDA_REGION (else AWS_REGION, AWS_DEFAULT_REGION, the node's
 * region), AF_SFN_LAMBDA_ACCESS_KEY_ID / AF_SFN_LAMBDA_SECRET_ACCESS_KEY / AF_SFN_LAMBDA_SESSION_TOKEN
 * (else the AWS_* ones). No endpoint: undefined (lambda:invoke tasks then fail at run time).
 */
export function resolveLambdaTarget(o: LambdaTargetOptions = {}, env: NodeJS.ProcessEnv, nodeRegion: string): LambdaTarget | undefined {
  const raw = set(o.endpoint) ?? set(env.AF_SFN_LAMBDA_ENDPOINT);
  if (raw === undefined) return undefined;
  let endpoint: URL;
  try { endpoint = new URL(raw); } catch { throw new Error(`AF_SFN_LAMBDA_ENDPOINT must be an http(s) URL, got ${raw}`); }
  if ((endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') || endpoint.search !== '' || endpoint.username !== '') {
    throw new Error(`AF_SFN_LAMBDA_ENDPOINT must be an http(s) URL without query or user info, got ${raw}`);
  }
  const region = set(o.region) ?? set(env.AF_SFN_LAMBDA_REGION) ?? set(env.AWS_REGION) ?? set(env.AWS_DEFAULT_REGION) ?? nodeRegion;
  if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) throw new Error(`AF_SFN_LAMBDA_REGION must be a region such as us-east-1, got ${region}`);
  const own = set(o.accessKeyId) ?? set(env.AF_SFN_LAMBDA_ACCESS_KEY_ID);
  const accessKeyId = own ?? set(env.AWS_ACCESS_KEY_ID);
  const secretAccessKey = own !== undefined ? set(o.secretAccessKey) ?? set(env.AF_SFN_LAMBDA_SECRET_ACCESS_KEY) : set(env.AWS_SECRET_ACCESS_KEY);
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    throw new Error('AF_SFN_LAMBDA_ENDPOINT is set but no credentials to sign with: set AF_SFN_LAMBDA_ACCESS_KEY_ID and AF_SFN_LAMBDA_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; any pair will do for the SAM CLI)');
  }
  const sessionToken = own !== undefined ? set(o.sessionToken) ?? set(env.AF_SFN_LAMBDA_SESSION_TOKEN) : set(env.AWS_SESSION_TOKEN);
  return Object.freeze({
    endpoint, region,
    credentials: Object.freeze({ accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) }),
  });
}
