// jest globalTeardown of the int and e2e projects (jest.config.js): stop what the set-up started.
import { tearDownTestInfra } from './test-infra';

export default tearDownTestInfra;
