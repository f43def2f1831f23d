export { ENGINES, engineNamed, routeTableFor } from './engines';
