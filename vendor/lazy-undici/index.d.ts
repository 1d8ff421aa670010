export * from 'undici-actual'
