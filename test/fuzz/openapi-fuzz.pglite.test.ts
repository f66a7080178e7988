import { openApiFuzzSuite } from './openapi-fuzz-suite.js';

openApiFuzzSuite('pglite');
