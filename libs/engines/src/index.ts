export {
  ENGINES,
  MOUNT_CATALOGUE,
  engineNamed,
  routeTableFor,
  runEngine,
  serviceForMountType,
} from './engines';
