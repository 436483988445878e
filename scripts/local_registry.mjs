// A throwaway read-only npm registry over a folder of `npm pack` tarballs, for
// scripts/package_test.sh: GET /<name> answers the packument, GET /-/<file>.tgz the tarball.
// Prints its URL on stdout once listening.  node scripts/local_registry.mjs DIR
import { createServer } from "node:http";
import { readdirSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import process from "node:process";

const dir = process.argv[2];
const packuments = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith(".tgz"))) {
  const data = readFileSync(`${dir}/${file}`);
  const manifest = JSON.parse(execFileSync("tar", ["-xzOf", `${dir}/${file}`, "package/package.json"], { encoding: "utf8" }));
  const dist = {
    tarball: `@BASE@/-/${file}`,
    shasum: createHash("sha1").update(data).digest("hex"),
    integrity: "sha512-" + createHash("sha512").update(data).digest("base64"),
  };
  const { name, version } = manifest;
  packuments[name] = JSON.stringify({ name, "dist-tags": { latest: version }, versions: { [version]: { ...manifest, dist } } });
}

const server = createServer((req, res) => {
  const path = decodeURIComponent(req.url.split("?")[0]).slice(1);
  if (path.startsWith("-/") && path.endsWith(".tgz") && !path.includes("..")) {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.end(readFileSync(`${dir}/${path.slice(2)}`));
  } else if (packuments[path]) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(packuments[path].replaceAll("@BASE@", `http://${req.headers.host}`));
  } else {
    res.writeHead(404, { "content-type": "application/json" });
    res.end('{"error":"Not found"}');
  }
});
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}/`));
