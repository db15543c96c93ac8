/**
 * The provider and model fields of the new-chat form: providers the server lists, unavailable ones
 * disabled with the reason, and a model name that is free text, suggested from the models the chosen
 * provider lists (asked again on every provider change; only the latest answer fills the list). The
 * user's remembered provider and model are preselected.
 */
import type { ChatModelPreference, ProviderSummary } from './api-client.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { initialModelChoice } from './model-choice.ts';

export interface ModelFields {
  /** The provider field and the model field, in form order. */
  elements: HTMLElement[];
  provider(): string;
  /** The model name as typed (untrimmed). */
  model(): string;
  focusModel(): void;
}

export function createModelFields(
  api: ChatPageOptions['api'],
  providers: ProviderSummary[],
  providersError: string | undefined,
  remembered: ChatModelPreference | null,
): ModelFields {
  const ids = {
    provider: uniqueId('provider'),
    model: uniqueId('model'),
    models: uniqueId('models'),
    modelHint: uniqueId('model-hint'),
    providerHint: uniqueId('provider-hint'),
  };
  const available = providers.filter((provider) => provider.available);
  const providerSelect = h(
    'select',
    { id: ids.provider, name: 'provider', required: true, 'aria-describedby': ids.providerHint },
    providers.map((provider) =>
      h(
        'option',
        { value: provider.id, disabled: !provider.available },
        provider.available
          ? provider.id
          : `${provider.id} (unavailable${provider.reason ? `: ${provider.reason}` : ''})`,
      ),
    ),
  );
  const initial = initialModelChoice(providers, remembered);
  if (initial) providerSelect.value = initial.provider;
  const modelList = h('datalist', { id: ids.models });
  const modelInput = h('input', {
    id: ids.model,
    name: 'model',
    type: 'text',
    required: true,
    list: ids.models,
    autocomplete: 'off',
    'aria-describedby': ids.modelHint,
  });
  modelInput.value = initial?.model ?? '';
  const modelHint = h('p', { class: 'field-hint', id: ids.modelHint, 'aria-live': 'polite' });
  let modelRequest = 0;
  const updateModels = async () => {
    const providerId = providerSelect.value;
    const request = ++modelRequest;
    replaceChildren(modelList);
    if (!providers.some((provider) => provider.id === providerId && provider.available)) return;
    modelHint.textContent = `Asking ${providerId} which models it offers…`;
    try {
      const listed = await api.listProviderModels(providerId);
      // A later provider change owns the field now.
      if (request !== modelRequest) return;
      replaceChildren(
        modelList,
        listed.models.map((model) => h('option', { value: model })),
      );
      modelHint.textContent =
        listed.models.length === 0
          ? `${providerId} listed no models; type the model name.`
          : `${listed.models.length} models listed by ${providerId}; pick one or type any name.`;
    } catch (error) {
      if (request !== modelRequest) return;
      modelHint.textContent = `Could not list the models of ${providerId} (${(error as Error).message}); type the model name.`;
    }
  };
  providerSelect.addEventListener('change', () => void updateModels());
  void updateModels();
  return {
    elements: [
      h(
        'div',
        { class: 'field' },
        h('label', { for: ids.provider }, 'Provider'),
        providerSelect,
        h(
          'p',
          { class: 'field-hint', id: ids.providerHint },
          providersError
            ? `Could not load providers: ${providersError}`
            : available.length === 0
              ? 'No provider is configured on this server.'
              : 'Providers configured on this server.',
        ),
      ),
      h('div', { class: 'field' }, h('label', { for: ids.model }, 'Model'), modelInput, modelList, modelHint),
    ],
    provider: () => providerSelect.value,
    model: () => modelInput.value,
    focusModel: () => modelInput.focus(),
  };
}
