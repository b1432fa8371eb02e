// The environment logs through the injected owrl Logger; silent when none is given.
export { silentLogger, type Logger } from '@owrl/core';
