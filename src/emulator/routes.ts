// Every route the emulator serves, in match order (literal segments before parameters).
import { nfseSettingsRoutes } from './resources/nfse-settings.js';
import { paymentMethodRoutes } from './resources/payment-methods.js';
import { compileRoutes } from './router.js';

export const emulatorRoutes = compileRoutes([...paymentMethodRoutes, ...nfseSettingsRoutes]);
