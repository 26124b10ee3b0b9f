// The bench's baseline server: a bare Fastify in its own process, the floor any Fastify route on this
// machine can reach. GET / answers {"hello":"world"}, or, with BODY_FILE set, exactly that file's bytes as
// application/json (the same bytes an Atelier route sends, for a like-for-like baseline). Prints its URL
// when listening.
import fs from 'node:fs';
import Fastify from 'fastify';

const body = process.env.BODY_FILE ? fs.readFileSync(process.env.BODY_FILE) : undefined;
const app = Fastify({ logger: false });
if (body) app.get('/', (req, reply) => { reply.type('application/json; charset=utf-8').send(body); });
else app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const addr = app.server.address();
process.stdout.write(`listening on http://127.0.0.1:${addr.port}\n`);
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => app.close().then(() => process.exit(0)));
