import { SignatureV4 } from '@smithy/signature-v4';
import type { Integration, IntegrationCall, IntegrationResult } from './integration.js';
import { originOf } from './http-hosts.js';
import { sendHttp, type HttpResponse } from './http-send.js';
import type { LambdaTarget } from './lambda-config.js';
import { checkLambdaParameters, LambdaParameterProblem, readLambdaParameters, type LambdaInvokeRequest } from './lambda-parameters.js';
import { Sha256 } from './sigv4-sha256.js';

/** Lambda answers a synchronous invocation with at most 6 MB; more is not a Lambda answer. */
const MAX_LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024 + 1024;
/** A function runs at most 15 minutes; the call waits that long and a little more when the task has no deadline. */
const MAX_INVOKE_MS = 15 * 60_000 + 30_000;

/**
 * The Invoke API's modelled faults: Step Functions names them `Lambda.<name>`; anything else the
 * Java SDK it runs on reports as `Lambda.AWSLambdaException`.
 */
const MODELLED_FAULTS = new Set([
  'ServiceException', 'ResourceNotFoundException', 'InvalidRequestContentException', 'RequestTooLargeException',
  'UnsupportedMediaTypeException', 'TooManyRequestsException', 'InvalidParameterValueException', 'EC2UnexpectedException',
  'SubnetIPAddressLimitReachedException', 'ENILimitReachedException', 'EFSMountConnectivityException', 'EFSMountFailureException',
  'EFSMountTimeoutException', 'EFSIOException', 'SnapStartException', 'SnapStartTimeoutException', 'SnapStartNotReadyException',
  'EC2ThrottledException', 'EC2AccessDeniedException', 'InvalidSubnetIDException', 'InvalidSecurityGroupIDException',
  'InvalidZipFileException', 'KMSDisabledException', 'KMSInvalidStateException', 'KMSAccessDeniedException', 'KMSNotFoundException',
  'InvalidRuntimeException', 'ResourceConflictException', 'ResourceNotReadyException', 'RecursiveInvocationException',
]);

const fail = (error: string, cause: string): IntegrationResult => ({ ok: false, error, cause });
const first = (r: HttpResponse, name: string): string | undefined => r.headers[name.toLowerCase()]?.[0];

function parsePayload(text: string): unknown {
  if (text === '') return '';
  try { return JSON.parse(text); } catch { return text; }
}

/** AWS's output of lambda:invoke. */
export function lambdaTaskOutput(r: HttpResponse): Record<string, unknown> {
  // The SDK's metadata keeps the header names as the service wrote them.
  const all = r.casedHeaders;
  const out: Record<string, unknown> = {
    ExecutedVersion: first(r, 'x-amz-executed-version'),
    ...(first(r, 'x-amz-log-result') === undefined ? {} : { LogResult: first(r, 'x-amz-log-result') }),
    Payload: parsePayload(r.body.toString('utf8')),
    SdkHttpMetadata: {
      AllHttpHeaders: all,
      HttpHeaders: Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.join(',')])),
      HttpStatusCode: r.status,
    },
    SdkResponseMetadata: { RequestId: first(r, 'x-amzn-requestid') ?? '' },
    StatusCode: r.status,
  };
  if (out.ExecutedVersion === undefined) delete out.ExecutedVersion;
  return out;
}

/** A fault of the Invoke API as Step Functions reports it, with the Java SDK's cause text. */
function apiFault(r: HttpResponse): IntegrationResult {
  const text = r.body.toString('utf8');
  let body: Record<string, unknown> = {};
  try { body = JSON.parse(text) as Record<string, unknown>; } catch { /* not JSON: the text is the message */ }
  const typed = first(r, 'x-amzn-errortype')?.split(':')[0] ?? (typeof body.__type === 'string' ? body.__type.split('#').pop() : undefined);
  const code = typed ?? (r.status === 429 ? 'TooManyRequestsException' : r.status >= 500 ? 'ServiceException' : 'AWSLambdaException');
  const message = typeof body.message === 'string' ? body.message : typeof body.Message === 'string' ? body.Message : text || r.statusText;
  const name = MODELLED_FAULTS.has(code) ? code : 'AWSLambdaException';
  return fail(`Lambda.${name}`, `${message} (Service: AWSLambda; Status Code: ${r.status}; Error Code: ${code}; Request ID: ${first(r, 'x-amzn-requestid') ?? ''}; Proxy: null)`);
}

/** `arn:aws:states:::lambda:invoke` (and `.waitForTaskToken`): Lambda's Invoke API at the operator's endpoint. */
export class LambdaInvokeIntegration implements Integration {
  readonly resourceType = 'lambda';
  readonly actions = { invoke: ['request', 'waitForTaskToken'] } as const;
  private readonly signer: SignatureV4 | undefined;

  constructor(private readonly target: LambdaTarget | undefined) {
    this.signer = target && new SignatureV4({ service: 'lambda', region: target.region, credentials: target.credentials, sha256: Sha256 });
  }

  check(action: string, parameters: unknown): string | undefined {
    return action === 'invoke' ? checkLambdaParameters(parameters) : undefined;
  }

  async invoke(call: IntegrationCall): Promise<IntegrationResult> {
    let req: LambdaInvokeRequest;
    try { req = readLambdaParameters(call.parameters); } catch (e) {
      if (e instanceof LambdaParameterProblem) return fail('Lambda.AWSLambdaException', `${e.message} (Service: AWSLambda; Status Code: 400; Error Code: ValidationException; Request ID: ; Proxy: null)`);
      throw e;
    }
    if (!this.target || !this.signer) {
      return fail('Lambda.SdkClientException', 'Unable to execute HTTP request: no Lambda endpoint is configured on this engine (set AF_SFN_LAMBDA_ENDPOINT to the SAM CLI\'s start-lambda, a LocalStack or an AWS Lambda endpoint)');
    }
    const { endpoint } = this.target;
    const path = `${endpoint.pathname.replace(/\/+$/, '')}/2015-03-31/functions/${encodeURIComponent(req.functionName)}/invocations`;
    const body = req.payload === undefined ? undefined : Buffer.from(JSON.stringify(req.payload));
    const headers: Record<string, string> = {
      host: endpoint.host,
      'content-type': 'application/octet-stream',
      'x-amz-invocation-type': req.invocationType,
      ...(req.logType === undefined ? {} : { 'x-amz-log-type': req.logType }),
      ...(req.clientContext === undefined ? {} : { 'x-amz-client-context': req.clientContext }),
    };
    const query: Record<string, string> = req.qualifier === undefined ? {} : { Qualifier: req.qualifier };
    const signed = await this.signer.sign({
      method: 'POST', protocol: endpoint.protocol, hostname: endpoint.hostname, port: endpoint.port === '' ? undefined : Number(endpoint.port),
      path, query, headers, body: body ?? '',
    });
    const url = new URL(endpoint.origin);
    url.pathname = path;
    if (req.qualifier !== undefined) url.searchParams.set('Qualifier', req.qualifier);
    const left = call.deadline === undefined ? Infinity : call.deadline - Date.now();
    const origin = originOf(url);
    const r = await sendHttp('POST', url, signed.headers, body, {
      allowed: (u) => originOf(u) === origin, timeoutMs: Math.max(0, Math.min(MAX_INVOKE_MS, left)), signal: call.signal,
      maxBodyBytes: MAX_LAMBDA_RESPONSE_BYTES, maxRedirects: 0, secretHeaders: ['authorization'],
    });
    switch (r.kind) {
      case 'refused': return fail('Lambda.SdkClientException', `Unable to execute HTTP request: ${originOf(r.url)} is not the configured Lambda endpoint`);
      case 'too-large': return fail('States.DataLimitExceeded', `The state/task '${call.stateName}' returned a result with a size exceeding the maximum number of bytes service limit.`);
      case 'socket': return fail('Lambda.SdkClientException', `Unable to execute HTTP request: ${r.message}`);
      case 'timeout': return left < MAX_INVOKE_MS
        ? fail('States.Timeout', 'The task timed out before the Lambda function answered.')
        : fail('Lambda.SdkClientException', 'Unable to execute HTTP request: Read timed out');
      case 'aborted': return fail('States.TaskFailed', 'The task ended before the Lambda function answered.');
      case 'response': return this.answer(r.response);
    }
  }

  private answer(r: HttpResponse): IntegrationResult {
    if (r.status < 200 || r.status > 299) return apiFault(r);
    if (first(r, 'x-amz-function-error') !== undefined) {
      const text = r.body.toString('utf8');
      const payload = parsePayload(text) as { errorType?: unknown } | undefined;
      const errorType = typeof payload === 'object' && payload !== null && typeof payload.errorType === 'string' && payload.errorType !== '' ? payload.errorType : 'Lambda.Unknown';
      return fail(errorType, text);
    }
    return { ok: true, output: lambdaTaskOutput(r) };
  }
}
