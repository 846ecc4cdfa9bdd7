import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app';
import { PageSpinner } from './components/card-layout';
import { I18nProvider } from './lib/i18n';
import { RuntimeConfigProvider, readInlineDictionary, readRuntimeConfig } from './lib/runtime-config';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <RuntimeConfigProvider value={readRuntimeConfig()}>
      <I18nProvider inline={readInlineDictionary()} languages={navigator.languages} fallback={<PageSpinner />}>
        <BrowserRouter>
          <App />
        </BrowserRouter>
      </I18nProvider>
    </RuntimeConfigProvider>
  </StrictMode>,
);
