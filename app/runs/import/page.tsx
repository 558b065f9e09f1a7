import { UploadRun } from "@/components/import/upload-run";

export default function ImportRunPage() {
  return <UploadRun />;
}
