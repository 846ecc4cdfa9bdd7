import { StrictMode, lazy, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Routes, Route, Navigate, Link, useSearchParams, useNavigate } from 'react-router';
function A() { const [p] = useSearchParams(); const n = useNavigate(); return <Link to="/x" onClick={() => n('/y')}>{p.get('a')}</Link>; }
const B = lazy(() => import('./b'));
createRoot(document.getElementById('root')!).render(<StrictMode><BrowserRouter><Suspense><Routes><Route path="/" element={<A />} /><Route path="/b" element={<B />} /><Route path="*" element={<Navigate to="/" replace />} /></Routes></Suspense></BrowserRouter></StrictMode>);
