import { expect, it } from 'vitest'
import { demangle } from './demangle.ts'

// First: the package is loaded by this file's first demangle.
it('leaves no process-wide error listener behind (its runtime adds one that rethrows)', () => {
  const count = () => process.listenerCount('uncaughtException') + process.listenerCount('unhandledRejection')
  const before = count()
  demangle('_ZN3app6Widget6renderEi')
  expect(count()).toBe(before)
})

it('demangles Itanium C++ names and leaves the rest', () => {
  expect(demangle('_ZN3app6Widget6renderEi')).toBe('app::Widget::render(int)')
  expect(demangle('_ZNSt6vectorIiSaIiEE9push_backERKi')).toBe('std::vector<int, std::allocator<int> >::push_back(int const&)')
  expect(demangle('crash_here')).toBe('crash_here')
  expect(demangle('_Znot a mangled name')).toBe('_Znot a mangled name')
})
