import fs from 'node:fs';
import { startTestServer } from './server.js';
const srv = await startTestServer();
try {
  const r = await srv.request('GET', '/v1/openapi.json');
  fs.writeFileSync(process.argv[2] ?? '/tmp/i18/openapi.json', JSON.stringify(r.body, null, 2));
  console.log(r.status);
} finally { await srv.close(); }
