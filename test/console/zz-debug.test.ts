import { it } from 'vitest';
import { startTestEngine } from '../helpers/engine.js';
import { openConsoleBrowser } from '../console/browser.js';
it('debug', async () => {
  const engine = await startTestEngine({ http: { port: 0, accessKeys: {} } });
  const base = engine.node.http!.url;
  const pass = (name: string) => ({ StartAt: name, States: { [name]: { Type: 'Pass', End: true } } });
  const { stateMachineArn } = await engine.client.call<any>('CreateStateMachine', { name: 'fan', roleArn: 'arn:aws:iam::000000000000:role/console', definition: JSON.stringify({
    StartAt: 'Both',
    States: {
      Both: { Type: 'Parallel', Branches: [pass('Left'), pass('Right')], ResultPath: '$.both', Next: 'Each' },
      Each: { Type: 'Map', ItemsPath: '$.items', ItemProcessor: { ProcessorConfig: { Mode: 'INLINE' }, ...pass('Item') }, End: true },
    } }) });
  const { executionArn } = await engine.client.call<any>('StartExecution', { stateMachineArn, input: JSON.stringify({ items: [1, 2] }) });
  await new Promise((r) => setTimeout(r, 1500));
  console.log(JSON.stringify(await engine.client.call<any>('DescribeExecution', { executionArn })));
  const b = await openConsoleBrowser(base);
  b.page.on('console', (m) => console.log('PAGE', m.text()));
  await b.page.goto(`${base}/console/sfn/execution/${encodeURIComponent(executionArn)}`);
  await new Promise((r) => setTimeout(r, 4000));
  console.log((await b.page.locator('#execution-graph').innerHTML()).slice(0, 3000));
  await b.shot('debug');
  await b.close();
  await engine.stop();
}, 60_000);
