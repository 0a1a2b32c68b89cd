// other-unique-case: `priority casez` with a zero default before it: correct in every simulator, but Yosys reads priority as full_case and builds a different encoder for d < 2
module prio_enc8 (
    input  wire [7:0] d,
    output reg  [2:0] idx,
    output wire       valid
);
    always @* begin
        idx = 3'd0;
        priority casez (d)
            8'b1???????: idx = 3'd7;
            8'b01??????: idx = 3'd6;
            8'b001?????: idx = 3'd5;
            8'b0001????: idx = 3'd4;
            8'b00001???: idx = 3'd3;
            8'b000001??: idx = 3'd2;
            8'b0000001?: idx = 3'd1;
        endcase
    end
    assign valid = |d;
endmodule
