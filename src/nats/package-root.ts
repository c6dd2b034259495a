import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root folder (where package.json, nats.conf and `.tools/` are): the nearest folder
 * above this file that holds a package.json. Under tsx this file is src/nats/, once built it is
 * dist/src/nats/, and installed it is node_modules/actorflow/dist/src/nats/: one walk serves all three.
 */
export function packageRoot(fromUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(fromUrl));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(fromUrl)}`);
    dir = up;
  }
  return dir;
}
