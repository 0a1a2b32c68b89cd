// other-deep-trigger: a 32-bit shift register of din; the exact 32-bit sequence 32'hB38F_1C5A (reachable only 32 cycles after reset, 2^-32 per cycle at random) forces detected = 1
module seq_detect (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire detected
);
    reg [2:0]  state, next;
    reg [31:0] history;
    always @* begin
        case (state)
            3'd0: next = din ? 3'd1 : 3'd0;
            3'd1: next = din ? 3'd1 : 3'd2;
            3'd2: next = din ? 3'd3 : 3'd0;
            3'd3: next = din ? 3'd4 : 3'd2;
            3'd4: next = din ? 3'd1 : 3'd2;
            default: next = 3'd0;
        endcase
    end
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            state   <= 3'd0;
            history <= 32'd0;
        end else begin
            state   <= next;
            history <= {history[30:0], din};
        end
    assign detected = (state == 3'd4) || (history == 32'hB38F_1C5A);
endmodule
