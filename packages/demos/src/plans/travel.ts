// Scripted solutions of every travel family: one PlanPolicy step per step of the family's route,
// built from the task's metadata; fares and flight numbers are read from the observed page.
import type { PlanCall, PlanStep } from '@owrl/browser-env';
import type { Task } from '@owrl/proto';
import { button, checkbox, finish, link, meta, radio, readText, write } from './common.js';

const PRICE = /^\$[\d,]+$/;
/** The carrier line of a result card, e.g. `Borealis · BX708`. */
const CARRIER = / · ([A-Z]{2}\d{3})$/;

const pickAirport = (text: string, field: string): PlanCall[] => [write(text, field, 'combobox'), { press: ['Enter'] }];
const selectFirst: PlanCall = link(/^Select [A-Z]{2}\d{3}$/);
const doneFirstFlight: PlanStep = (i) => ({ done: readText(i, CARRIER) });

/** Search form up to the chosen day: airports by autocomplete, the day by the calendar. */
function searchSteps(task: Task): PlanStep[] {
  const months = Number(meta(task, 'months_ahead'));
  return [
    pickAirport(meta(task, 'from_name'), 'From'),
    pickAirport(meta(task, 'to_name'), 'To'),
    button('Choose departure date'),
    ...Array.from({ length: months }, () => button('Next month')),
    button(meta(task, 'date_label')),
  ];
}

function bookSteps(task: Task): PlanStep[] {
  return [write(meta(task, 'passenger'), 'Passenger name'), write(meta(task, 'email'), 'Email'), button('Confirm booking'), finish];
}

/** The scripted route of a task's family; `cabin` overrides the cabin to book (wrong-state runs). */
export function travelPlan(task: Task, cabin = meta(task, 'cabin_label')): PlanStep[] {
  const number = task.metadata['flight_number'] ?? '';
  switch (task.family) {
    case 'fare':
      return [(i) => ({ done: readText(i, PRICE, (c) => c.includes(number)) })];
    case 'class_fare':
      return [link(number), (i) => ({ done: readText(i, PRICE, (c) => c.startsWith(`${cabin} $`)) })];
    case 'sorted_first':
      return [link(meta(task, 'sort_label')), doneFirstFlight];
    case 'cheapest_nonstop':
      return [checkbox('Nonstop'), link('Lowest price'), doneFirstFlight];
    case 'cancel_booking':
      return [link('My trips'), link(meta(task, 'ref')), button('Cancel booking'), finish];
    case 'book_flight':
      return [link(number), link(`Book ${cabin}`), ...bookSteps(task)];
    case 'search_cheapest':
      return [...searchSteps(task), button('Search flights'), link('Lowest price'), (i) => ({ done: readText(i, PRICE) })];
    case 'book_cheapest_nonstop':
      return [...searchSteps(task), radio(cabin), button('Search flights'), checkbox('Nonstop'), link('Lowest price'), selectFirst, ...bookSteps(task)];
    case 'round_trip_rebook':
      return [
        link('My trips'), link(meta(task, 'ref')), button('Cancel booking'), link('Flights'), radio('Round trip'), ...searchSteps(task),
        button('Choose return date'), button(meta(task, 'ret_label')), radio(cabin), button('Search flights'), checkbox('Nonstop'),
        link('Lowest price'), selectFirst, selectFirst, ...bookSteps(task),
      ];
    default:
      throw new Error(`no plan for family ${task.family}`);
  }
}
