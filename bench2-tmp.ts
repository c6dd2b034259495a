import { createServer } from 'node:http';
const s = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(400, { 'content-type': 'application/json' }); res.end('{"a":1}'); }); });
await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
const port = (s.address() as any).port;
const t0 = performance.now(); let n = 0;
await Promise.all(Array.from({ length: 16 }, async () => { while (n < 2000) { n++; const r = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }); await r.text(); } }));
console.log('plain', Math.round(2000 / ((performance.now() - t0) / 1000)), 'req/s');
s.close();
