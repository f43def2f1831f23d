// jest globalSetup of the int and e2e projects (jest.config.js): find or start Postgres and NATS.
import { setUpTestInfra } from './test-infra';

export default setUpTestInfra;
