export { ENGINES, engineNamed, routeTableFor, type EngineName } from './engines';
