import { describe } from 'vitest';
import { STORES } from '../helpers/stores.js';
import { openApiFuzzSuite } from './openapi-fuzz-suite.js';

describe.runIf(STORES.includes('postgres'))('on PostgreSQL', () => openApiFuzzSuite('postgres'));
